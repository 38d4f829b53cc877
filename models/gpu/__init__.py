"""Training on a borrowed GPU machine (``run.sh``): what travels there must fit in 64 MiB and
its Python has torch, OpenCV and NumPy but not yamscope's own dependencies, so the data goes
as JPEG bytes (:mod:`models.gpu.pack`) and the trainers are called directly, not through the
``yamscope`` command. Nothing else depends on a GPU: CI and the appliance never see one."""
